// Links in watch events.

/** The product page of a marketplace item, from the product API URL it was scraped from (same host). */
export function productLink(apiUrl: unknown, shopId: unknown, itemId: unknown): string | null {
  if (typeof apiUrl !== 'string' || !URL.canParse(apiUrl)) return null;
  return `${new URL(apiUrl).origin}/product/${String(shopId)}/${String(itemId)}`;
}
