/**
 * A product's price as shoppers read it. Its own module (not products.service.ts) because the brand-site
 * renderers, which must not load the ORM, print prices too.
 */
import type { ProductView } from './products.service.ts';

export function formatPrice(product: Pick<ProductView, 'price' | 'currency'> | null): string | null {
  if (!product || product.price === null || !product.currency) return null;
  return new Intl.NumberFormat('en', { style: 'currency', currency: product.currency }).format(product.price);
}
