// The `commander` package, as the product uses it; bundled into one file by the build (vendor/README.md).
export { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
