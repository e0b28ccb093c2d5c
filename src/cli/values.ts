/** Typed reads of parsed option values. */
import { UsageError } from './failures.js';
import type { OptionValues } from './spec.js';

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(values: OptionValues, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

/** A whole-number option from 1 (up to `max`), or undefined when not given; anything else is a usage error. */
export function positiveInteger(values: OptionValues, name: string, command: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const text = stringOption(values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    throw new UsageError(`--${name} must be a whole number from 1${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}, not "${text}"`, command);
  }
  return value;
}
