// strconv.FormatFloat for the 'e', 'f' and 'g' formats. Go rounds the exact binary value half to
// even; JS's toFixed rounds ties up and toPrecision goes through its own path, so digits come from
// the exact decimal expansion (BigInt) when a precision is given and from toExponential (the
// shortest round-trip digits, which Go's shortest mode also produces) when none is.

/** value = 0.d × 10^dp, d without leading or trailing zeros ('' for zero). */
interface Decimal {
  d: string;
  dp: number;
}

const ZERO: Decimal = { d: '', dp: 0 };

function exactDecimal(x: number): Decimal {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp = -1074;
  if (biased !== 0) {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  let digits: string;
  let dp: number;
  if (exp >= 0) {
    digits = (mant << BigInt(exp)).toString();
    dp = digits.length;
  } else {
    digits = (mant * 5n ** BigInt(-exp)).toString();
    dp = digits.length + exp;
  }
  return { d: digits.replace(/0+$/, ''), dp };
}

function shortestDecimal(x: number): Decimal {
  const [mant = '0', e = '0'] = x.toExponential().split('e');
  return { d: mant.replace('.', '').replace(/0+$/, ''), dp: Number(e) + 1 };
}

function round(dec: Decimal, nd: number): Decimal {
  const { d, dp } = dec;
  if (nd < 0 || nd >= d.length) return dec;
  const half = d[nd] === '5' && nd + 1 === d.length;
  const up = half ? nd > 0 && (d.charCodeAt(nd - 1) - 48) % 2 === 1 : d.charCodeAt(nd) >= 53;
  if (!up) {
    const kept = d.slice(0, nd).replace(/0+$/, '');
    return kept === '' ? ZERO : { d: kept, dp };
  }
  let i = nd - 1;
  while (i >= 0 && d[i] === '9') i--;
  if (i < 0) return { d: '1', dp: dp + 1 };
  return { d: d.slice(0, i) + String(d.charCodeAt(i) - 47), dp };
}

function fmtE(neg: boolean, dec: Decimal, prec: number, fmt: string): string {
  const { d, dp } = dec;
  let s = (neg ? '-' : '') + (d.length === 0 ? '0' : d[0]);
  if (prec > 0) {
    const shown = d.slice(1, Math.min(d.length, prec + 1));
    s += `.${shown}${'0'.repeat(prec - shown.length)}`;
  }
  let exp = d.length === 0 ? 0 : dp - 1;
  const sign = exp < 0 ? '-' : '+';
  exp = Math.abs(exp);
  return `${s}${fmt}${sign}${exp < 10 ? '0' : ''}${exp}`;
}

function fmtF(neg: boolean, dec: Decimal, prec: number): string {
  const { d, dp } = dec;
  let s = neg ? '-' : '';
  if (dp > 0) {
    const head = d.slice(0, dp);
    s += head + '0'.repeat(dp - head.length);
  } else {
    s += '0';
  }
  if (prec > 0) {
    s += '.';
    for (let i = 0; i < prec; i++) {
      const j = dp + i;
      s += j >= 0 && j < d.length ? d[j] : '0';
    }
  }
  return s;
}

/** strconv.FormatFloat(v, fmt, prec, 64) for fmt in e, E, f, g, G; prec < 0 means shortest. */
export function formatFloat(v: number, fmt: 'e' | 'E' | 'f' | 'g' | 'G', prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  const neg = v < 0 || Object.is(v, -0);
  const x = Math.abs(v);
  const shortest = prec < 0;
  let dec: Decimal;
  if (shortest) {
    dec = x === 0 ? ZERO : shortestDecimal(x);
    if (fmt === 'e' || fmt === 'E') prec = Math.max(dec.d.length - 1, 0);
    else if (fmt === 'f') prec = Math.max(dec.d.length - dec.dp, 0);
    else prec = dec.d.length;
  } else {
    dec = x === 0 ? ZERO : exactDecimal(x);
    if (fmt === 'e' || fmt === 'E') dec = round(dec, prec + 1);
    else if (fmt === 'f') dec = round(dec, dec.dp + prec);
    else {
      if (prec === 0) prec = 1;
      dec = round(dec, prec);
    }
  }
  if (fmt === 'e' || fmt === 'E') return fmtE(neg, dec, prec, fmt);
  if (fmt === 'f') return fmtF(neg, dec, prec);
  const nd = dec.d.length;
  let eprec = prec;
  if (eprec > nd && nd >= dec.dp) eprec = nd;
  if (shortest) eprec = 6;
  const exp = dec.dp - 1;
  if (exp < -4 || exp >= eprec) {
    return fmtE(neg, dec, Math.min(prec, nd) - 1, fmt === 'g' ? 'e' : 'E');
  }
  if (prec > dec.dp) prec = nd;
  return fmtF(neg, dec, Math.max(prec - dec.dp, 0));
}
