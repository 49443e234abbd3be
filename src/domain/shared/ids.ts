/**
 * Entity identifiers: a short type prefix plus a ULID (`ws_01JD…`).
 *
 * The prefix makes ids self-describing in logs, URLs and agent transcripts; the ULID is time-ordered (so
 * b-tree inserts stay local and cursors sort by creation) and carries 80 random bits, so ids cannot be guessed.
 */
import { ulid } from 'ulid';

export const ID_PREFIXES = {
  user: 'usr',
  workspace: 'ws',
  membership: 'mem',
  apiKey: 'key',
  creditEntry: 'cle',
  job: 'job',
  jobStep: 'jst',
  session: 'ses',
  auditEvent: 'aud',
  campaign: 'cmp',
  variant: 'var',
  variantVersion: 'vrv',
  deployment: 'dep',
  product: 'prd',
  surface: 'srf',
  zone: 'zon',
  brand: 'brd',
  callCode: 'ccd',
  publication: 'spb',
  quote: 'qte',
  filmCommission: 'fcm',
  siteDocument: 'sdc',
  customDomain: 'dom',
  channelAccount: 'cha',
  channelPost: 'chp',
  invitation: 'inv',
  passwordReset: 'pwr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

/** The ULID part of an id: 26 characters of Crockford base32. */
export const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const ID_SHAPE = new RegExp(`^[a-z]{2,4}_${ULID_PATTERN}$`);

/** True when `value` has the shape of an id of this kind (it may still not exist). */
export function isIdOf(kind: IdKind, value: string): boolean {
  return ID_SHAPE.test(value) && value.startsWith(`${ID_PREFIXES[kind]}_`);
}
