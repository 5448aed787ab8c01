// Amounts as people type them (CONTRACT §20): web/app/money.js, the one parser and formatter every
// amount field and every amount shown in /app uses, run here as the browser runs it. Every
// example of §20, accepted and refused; a refusal says what was understood, and nothing is ever
// read with another magnitude than the one typed.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the pages' plain ES module, run here as the browser runs it.
import * as money from '../web/app/money.js';
// @ts-expect-error: the pages' plain ES modules: /app's words in English, as the English page gets them.
import { setLanguage } from '../web/app/lib.js';
// The English catalogue as the English page gets it: its messages parsed (http/describe-i18n.ts).
import { appCatalogue } from '../http/describe-i18n.ts';

setLanguage('en', 'en', appCatalogue('en'));

const minor = (text: string, currency = 'EUR') => money.parseMoney(text, currency);

describe('money as people type it', () => {
  it('reads every way of writing 1234.50 of §20, with or without the currency', () => {
    for (const text of ['1234.5', '1234,50', '1.234,50', '1,234.50', '1 234,50', '1\u00a0234,50', '1\u202f234,50', '€1.234,50', '1.234,50 €', '€ 1,234.50', 'EUR 1234,50', '1234.50 EUR', 'eur 1234,5']) {
      expect(minor(text), text).toEqual({ minor: 123450 });
    }
    // The defect of issue 43: 9,99 is 9.99, not 999.
    expect(minor('9,99')).toEqual({ minor: 999 });
    expect(minor('9.99')).toEqual({ minor: 999 });
    expect(minor('50')).toEqual({ minor: 5000 });
    expect(minor('-9,99')).toEqual({ minor: -999 });
    expect(minor('1.234.567')).toEqual({ minor: 123456700 });
    expect(minor('1,234,567.89')).toEqual({ minor: 123456789 });
    expect(minor('$1,234.50', 'USD')).toEqual({ minor: 123450 });
    expect(minor('USD 9.99', 'USD')).toEqual({ minor: 999 });
    expect(minor('£9.99', 'GBP')).toEqual({ minor: 999 });
    // Currencies with other decimals (ISO 4217): JPY none, BHD three.
    expect(minor('1,234', 'JPY')).toEqual({ minor: 1234 });
    expect(minor('¥1.234', 'JPY')).toEqual({ minor: 1234 });
    expect(minor('1,5', 'BHD')).toEqual({ minor: 1500 });
    expect(minor('1.234,567', 'BHD')).toEqual({ minor: 1234567 });
    // Decimals beyond the currency's that are zeros change nothing.
    expect(minor('9,9900')).toEqual({ minor: 999 });
    expect(minor('0,500')).toEqual({ minor: 50 });
    expect(minor('')).toEqual({ empty: true });
  });

  it('refuses what is ambiguous, saying both readings', () => {
    for (const [text, currency] of [['1,234', 'EUR'], ['1.234', 'EUR'], ['12,345', 'USD'], ['1,234', 'BHD']] as const) {
      const r = minor(text, currency);
      expect(r.minor, text).toBeUndefined();
      expect(r.error, text).toMatch(/ambiguous/);
    }
    expect(minor('1,234').error).toBe('“1,234” is ambiguous: 1,234.00 EUR, or 1.234 EUR? Type it with 2 decimals, such as 1,234.00.');
  });

  it('refuses more decimals than the currency has, saying what was understood', () => {
    expect(minor('9,999').error).toMatch(/ambiguous/); // could be 9999 as well
    expect(minor('12,3456').error).toBe('“12,3456” was read as 12.3456 EUR: EUR has 2 decimals, so it cannot be saved as typed.');
    expect(minor('0.005', 'USD').error).toBe('“0.005” was read as 0.005 USD: USD has 2 decimals, so it cannot be saved as typed.');
    expect(minor('1.5', 'JPY').error).toBe('“1.5” was read as 1.5 JPY: JPY has no decimals, so it cannot be saved as typed.');
    expect(minor('1,2345', 'BHD').error).toMatch(/read as 1\.2345 BHD/);
  });

  it('refuses what is not an amount, or another currency', () => {
    for (const text of ['abc', '1.23.4', '12 34', '1,234,5', '1..5', '1,', '.', '--5', '5 5 5']) expect(minor(text).error, text).toBeTruthy();
    expect(minor('$9.99').error).toBe('“$9.99”: “$” is not this field\'s currency (EUR).');
    expect(minor('USD 5').error).toMatch(/not this field's currency \(EUR\)/);
    expect(minor('99999999999999999999').error).toMatch(/too large/);
  });

  it('writes amounts in the locale with their currency, exactly', () => {
    expect(money.formatMoney(161823, 'EUR', 'en-US')).toBe('€1,618.23');
    expect(money.formatMoney(161823, 'EUR', 'de-DE')).toBe('1.618,23\u00a0€');
    expect(money.formatMoney(1234, 'JPY', 'en-US')).toBe('¥1,234');
    expect(money.formatMoney(1234567, 'BHD', 'en-US')).toMatch(/1,234\.567/);
    expect(money.formatMoney(900719925474099, 'USD', 'en-US')).toBe('$9,007,199,254,740.99');
    expect(money.moneyInput(123450, 'EUR', 'de-DE')).toBe('1234,50');
    expect(money.moneyInput(123450, 'EUR', 'en-US')).toBe('1234.50');
    // What the input shows reads back as the same amount, in every locale.
    for (const locale of ['en-US', 'de-DE', 'fr-FR']) for (const m of [0, 1, 999, 123450, 100000]) expect(minor(money.moneyInput(m, 'EUR', locale))).toEqual({ minor: m });
  });

  it('reads and writes tax rates and discounts as percentages', () => {
    expect(money.parsePercent('19')).toEqual({ value: 19 });
    expect(money.parsePercent('19 %')).toEqual({ value: 19 });
    expect(money.parsePercent('19%')).toEqual({ value: 19 });
    expect(money.parsePercent('19,5')).toEqual({ value: 19.5 });
    expect(money.parsePercent('7.25 %')).toEqual({ value: 7.25 });
    expect(money.parsePercent('19.12345').error).toMatch(/at most 4 decimals/);
    expect(money.parsePercent('nineteen').error).toBeTruthy();
    expect(money.formatPercent(19.5, 'en-US')).toBe('19.5\u00a0%');
    expect(money.formatPercent('7.2500', 'de-DE')).toBe('7,25\u00a0%');
  });
});
