// The `tinyglobby` package (with picomatch and fdir), as the product uses it; bundled into one file by the build
// (vendor/README.md).
export { glob, globSync, isDynamicPattern } from 'tinyglobby';
