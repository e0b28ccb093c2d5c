/** Typed reads of parsed option values. */
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
