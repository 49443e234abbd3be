/**
 * Product CSV import: parsing (csv-parse; a header row is required) and the mapping of common column names to
 * product fields. Rows are validated one by one when they are imported, so one bad row is reported with its
 * number and never stops the others. CSV text comes from the open web: it is stored as untrusted product data.
 */
import { parse } from 'csv-parse/sync';
import { ValidationError } from '../../errors.ts';
import type { ProductFieldsInput } from './products.service.ts';

/** At most this many rows per import (larger catalogues: split the file). */
export const MAX_CSV_ROWS = 5000;
export const MAX_CSV_BYTES = 5 * 1024 * 1024;

const COLUMNS: Record<string, keyof ProductFieldsInput | 'image'> = {
  title: 'title',
  name: 'title',
  product: 'title',
  description: 'description',
  price: 'price',
  currency: 'currency',
  image: 'image',
  image_url: 'image',
  imageurl: 'image',
  images: 'image',
  image_link: 'image',
  url: 'url',
  link: 'url',
  product_url: 'url',
  brand: 'brand',
  sku: 'sku',
  id: 'sku',
};

export interface CsvRow {
  /** 1-based row number in the file, counting the header as row 1. */
  row: number;
  fields: ProductFieldsInput;
}

function normalise(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Parses CSV text into product inputs; columns it does not know become attributes. */
export function parseProductCsv(text: string): CsvRow[] {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      to: MAX_CSV_ROWS + 1,
    });
  } catch (error) {
    throw new ValidationError(`The file is not valid CSV: ${(error as Error).message.slice(0, 200)}`);
  }
  const [header, ...rows] = records;
  if (!header) throw new ValidationError('The CSV file is empty');
  const columns = header.map(normalise);
  if (!columns.some((column) => COLUMNS[column] === 'title')) {
    throw new ValidationError('The CSV file needs a header row with a "title" (or "name") column');
  }
  return rows.map((cells, index) => {
    const fields: ProductFieldsInput & { attributes: Record<string, string> } = { title: '', attributes: {} };
    columns.forEach((column, i) => {
      const value = cells[i] ?? '';
      if (value === '') return;
      const field = COLUMNS[column];
      if (field === 'image')
        fields.images = value
          .split(/[\s|]+/)
          .filter(Boolean)
          .slice(0, 10);
      else if (field === 'price') {
        const number = Number(value.replace(/[^\d.,-]/g, '').replace(',', '.'));
        (fields as Record<string, unknown>).price = Number.isFinite(number) ? number : value;
      } else if (field) (fields as Record<string, unknown>)[field] = value;
      else if (Object.keys(fields.attributes).length < 30) fields.attributes[column.slice(0, 60)] = value.slice(0, 500);
    });
    return { row: index + 2, fields };
  });
}
