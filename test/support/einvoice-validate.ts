// The official e-invoice artefacts, run without Java (docs/einvoice-validation.md):
//
//   ubl-xsd        OASIS UBL 2.1 schema (the OASIS release package, original headers)   libxml2 (WebAssembly)
//   cii-xsd        UN/CEFACT CII D16B schema (uncoupled), as the CEN repository ships it libxml2 (WebAssembly)
//   cen-ubl/-cii   CEN EN 16931 validation artefacts, their ready XSLT                  SaxonJS
//   peppol-ubl     Peppol BIS Billing 3, its Schematron (national rules included)       SchXslt → SaxonJS
//   xrechnung-*    KoSIT XRechnung Schematron                                           SchXslt → SaxonJS
//
// Every file comes from a public repository at a pinned commit and is checked against the sha256 in
// test/support/einvoice-artefacts.json before use. The repositories are read as git directories
// under $EINVOICE_ARTEFACTS (default /work/.mirror), laid out as `<owner>+<name>/repo`; nothing of
// them is committed here. Stylesheets are compiled once to SaxonJS's SEF and cached by checksum in
// $EINVOICE_CACHE (default <os tmp>/invoicing-einvoice-cache), so a run compiles nothing when the
// artefacts did not change; a validation then takes tens of milliseconds per layer.
//
// API: validateUbl(xml, {peppol, xrechnung}) / validateCii(xml, {xrechnung}) give every fired
// assertion (layer, id, flag, text, location); expectValidUbl / expectValidCii fail on any fatal.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { XMLParser } from 'fast-xml-parser';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const MANIFEST_PATH = join(here, 'einvoice-artefacts.json');

export type Layer = 'ubl-xsd' | 'cii-xsd' | 'cen-ubl' | 'cen-cii' | 'peppol-ubl' | 'xrechnung-ubl' | 'xrechnung-cii';
export type Flag = 'fatal' | 'warning' | 'information';

export interface Assertion {
  layer: Layer;
  /** The rule's id (BR-CO-15, PEPPOL-EN16931-R001, BR-DE-1 …); `XSD` for a schema error. */
  id: string;
  flag: Flag;
  text: string;
  /** An XPath for Schematron rules; `line N` for schema errors. */
  location: string;
}

export interface ValidationReport {
  /** The layers that ran, in order. */
  layers: Layer[];
  assertions: Assertion[];
  fatal: Assertion[];
}

interface ManifestFile {
  repo: string;
  commit: string;
  path: string;
  sha256: string;
}
interface Manifest {
  /** Each set: the files one layer (or the Schematron compiler) needs, from one repository. */
  sets: Record<string, { repo: string; commit: string; ref: string; files: { path: string; sha256: string }[] }>;
}

const SETS = {
  ublXsd: 'oasis-ubl-2.1-xsd',
  ciiXsd: 'cen-cii-d16b-xsd',
  cenUbl: 'cen-en16931-ubl-xslt',
  cenCii: 'cen-en16931-cii-xslt',
  peppolUbl: 'peppol-bis-billing-3-ubl-sch',
  xrechnung: 'kosit-xrechnung-sch',
  schxslt: 'schxslt-2.0',
} as const;

export const artefactsRoot = () => process.env.EINVOICE_ARTEFACTS ?? '/work/.mirror';
const cacheRoot = () => process.env.EINVOICE_CACHE ?? join(tmpdir(), 'invoicing-einvoice-cache');
const gitDir = (repo: string) => join(artefactsRoot(), repo.replace('/', '+'), 'repo');

let manifestMemo: Manifest | undefined;
const manifest = (): Manifest => (manifestMemo ??= JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest);

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** How to get the artefacts, for the error a missing one raises. */
function howToGet(): string {
  const lines = Object.values(manifest().sets).map(
    (s) => `  git clone --bare https://github.com/${s.repo}.git ${gitDir(s.repo)}   # needs commit ${s.commit} (${s.ref})`,
  );
  return [
    `The official e-invoice artefacts are read from git directories under ${artefactsRoot()} (EINVOICE_ARTEFACTS overrides it).`,
    'Get them with (any clone that contains the pinned commits will do):',
    ...lines,
    'See docs/einvoice-validation.md.',
  ].join('\n');
}

export class ArtefactsMissing extends Error {}

/** The repositories or commits missing under the artefacts root (empty: all there). */
export function missingArtefacts(): string[] {
  const missing: string[] = [];
  for (const set of Object.values(manifest().sets)) {
    const dir = gitDir(set.repo);
    if (!existsSync(dir)) {
      missing.push(`${set.repo} (no ${dir})`);
      continue;
    }
    try {
      execFileSync('git', ['--git-dir', dir, 'cat-file', '-e', `${set.commit}^{commit}`], { stdio: 'ignore' });
    } catch {
      missing.push(`${set.repo}@${set.commit}`);
    }
  }
  return missing;
}

/** True when the artefacts can be used; in CI (CI=true) their absence is an error, elsewhere a skip. */
export function artefactsAvailable(): boolean {
  const missing = missingArtefacts();
  if (missing.length === 0) return true;
  if (process.env.CI === 'true') throw new ArtefactsMissing(`Missing e-invoice artefacts: ${missing.join(', ')}\n${howToGet()}`);
  return false;
}

/** A file's place in the cache: its repository path without spaces or brackets (libxml2 resolves schema imports as URLs). */
const localPath = (p: string) => p.replace(/[^\w./-]/g, '_');

/**
 * Extracts one set's files, checked against the manifest, into the cache; returns the directory
 * that holds them under their repository paths.
 */
function materialise(setName: string): string {
  const set = manifest().sets[setName];
  if (!set) throw new Error(`no artefact set ${setName} in ${MANIFEST_PATH}`);
  const dir = join(cacheRoot(), 'files', set.repo.replace('/', '+'), set.commit);
  for (const f of set.files) {
    const target = join(dir, localPath(f.path));
    if (existsSync(target) && sha256(readFileSync(target)) === f.sha256) continue;
    let data: Buffer;
    try {
      data = execFileSync('git', ['--git-dir', gitDir(set.repo), 'show', `${set.commit}:${f.path}`], { maxBuffer: 64 << 20 });
    } catch {
      throw new ArtefactsMissing(`Cannot read ${set.repo}@${set.commit}:${f.path}\n${howToGet()}`);
    }
    const got = sha256(data);
    if (got !== f.sha256) throw new Error(`Checksum mismatch for ${set.repo}@${set.commit}:${f.path}: ${got}, manifest says ${f.sha256}`);
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, target);
  }
  return dir;
}

/** One file of the manifest, checked (the runner's test reads the official examples this way). */
export function readArtefact(setName: string, path: string): string {
  return readFileSync(join(materialise(setName), localPath(path)), 'utf8');
}

const xslt3 = () => join(dirname(require.resolve('xslt3/package.json')), 'xslt3.js');

/** Runs the xslt3 command line (SaxonJS's compiler) once; used only to build cached files. */
function runXslt3(args: string[]): void {
  execFileSync(process.execPath, [xslt3(), ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
}

/** Writes `file` through `make(tmp)` unless it exists; several workers may race, the last rename wins. */
function cached(file: string, make: (tmp: string) => void): string {
  if (existsSync(file) && statSync(file).size > 0) return file;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp${file.endsWith('.json') ? '.json' : ''}`;
  try {
    make(tmp);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return file;
}

const setKey = (...names: string[]) =>
  sha256(
    JSON.stringify([
      require('saxon-js/package.json').version,
      ...names.map((n) => manifest().sets[n]!.files.map((f) => f.sha256)),
    ]),
  ).slice(0, 24);

/** Compiles a Schematron file through SchXslt (include → expand → compile-for-svrl) to XSLT. */
function schematronToXslt(schPath: string, key: string): string {
  const schx = join(materialise(SETS.schxslt), 'core/src/main/resources/xslt/2.0');
  const out = join(cacheRoot(), 'xslt', `${key}.xsl`);
  return cached(out, (tmp) => {
    const a = `${tmp}.1.sch`;
    const b = `${tmp}.2.sch`;
    try {
      runXslt3([`-xsl:${join(schx, 'include.xsl')}`, `-s:${schPath}`, `-o:${a}`]);
      runXslt3([`-xsl:${join(schx, 'expand.xsl')}`, `-s:${a}`, `-o:${b}`]);
      runXslt3([`-xsl:${join(schx, 'compile-for-svrl.xsl')}`, `-s:${b}`, `-o:${tmp}`]);
    } finally {
      rmSync(a, { force: true });
      rmSync(b, { force: true });
    }
  });
}

function xsltToSef(xslPath: string, key: string): string {
  return cached(join(cacheRoot(), 'sef', `${key}.sef.json`), (tmp) => runXslt3([`-xsl:${xslPath}`, `-export:${tmp}`, '-nogo', '-relocate:on']));
}

interface SchematronLayer {
  layer: Layer;
  sefFile: () => string;
}

const SCHEMATRON: Record<'cen-ubl' | 'cen-cii' | 'peppol-ubl' | 'xrechnung-ubl' | 'xrechnung-cii', SchematronLayer> = {
  'cen-ubl': {
    layer: 'cen-ubl',
    sefFile: () => xsltToSef(join(materialise(SETS.cenUbl), 'ubl/xslt/EN16931-UBL-validation.xslt'), `cen-ubl-${setKey(SETS.cenUbl)}`),
  },
  'cen-cii': {
    layer: 'cen-cii',
    sefFile: () => xsltToSef(join(materialise(SETS.cenCii), 'cii/xslt/EN16931-CII-validation.xslt'), `cen-cii-${setKey(SETS.cenCii)}`),
  },
  'peppol-ubl': {
    layer: 'peppol-ubl',
    sefFile: () => {
      const key = `peppol-ubl-${setKey(SETS.peppolUbl, SETS.schxslt)}`;
      return xsltToSef(schematronToXslt(join(materialise(SETS.peppolUbl), 'rules/sch/PEPPOL-EN16931-UBL.sch'), key), key);
    },
  },
  'xrechnung-ubl': {
    layer: 'xrechnung-ubl',
    sefFile: () => {
      const key = `xrechnung-ubl-${setKey(SETS.xrechnung, SETS.schxslt)}`;
      const sch = join(materialise(SETS.xrechnung), 'src/validation/schematron/ubl/XRechnung-UBL-validation.sch');
      return xsltToSef(schematronToXslt(sch, key), key);
    },
  },
  'xrechnung-cii': {
    layer: 'xrechnung-cii',
    sefFile: () => {
      const key = `xrechnung-cii-${setKey(SETS.xrechnung, SETS.schxslt)}`;
      const sch = join(materialise(SETS.xrechnung), 'src/validation/schematron/cii/XRechnung-CII-validation.sch');
      return xsltToSef(schematronToXslt(sch, key), key);
    },
  },
};

// ---- running ----------------------------------------------------------------------------------

type Saxon = {
  transform(options: Record<string, unknown>, mode: 'sync'): { principalResult: string };
};
let saxonMemo: Saxon | undefined;
const saxon = (): Saxon => (saxonMemo ??= require('saxon-js') as Saxon);

/** Parsed SEF per layer: loaded once per process (and compiled once per artefact version). */
const sefs = new Map<Layer, unknown>();
function sefOf(layer: keyof typeof SCHEMATRON): unknown {
  let sef = sefs.get(layer);
  if (!sef) {
    sef = JSON.parse(readFileSync(SCHEMATRON[layer].sefFile(), 'utf8'));
    sefs.set(layer, sef);
  }
  return sef;
}

const svrlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  textNodeName: '#text',
  isArray: (_name: string, _path: unknown, _leaf: boolean, isAttribute: boolean) => !isAttribute,
});

const flagOf = (f: unknown): Flag => (f === 'warning' ? 'warning' : f === 'information' ? 'information' : 'fatal');
const textOfNode = (n: unknown): string => {
  if (n === undefined || n === null) return '';
  if (typeof n !== 'object') return String(n);
  if (Array.isArray(n)) return n.map(textOfNode).join(' ');
  const o = n as Record<string, unknown>;
  return Object.entries(o)
    .filter(([k]) => !k.startsWith('@'))
    .map(([, v]) => textOfNode(v))
    .join(' ');
};

/** The failed asserts and successful reports of an SVRL report. */
export function parseSvrl(svrl: string, layer: Layer): Assertion[] {
  const out: Assertion[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (k === 'failed-assert' || k === 'successful-report') {
        for (const a of v as Record<string, unknown>[]) {
          out.push({
            layer,
            id: String(a['@id'] ?? a['@test'] ?? '?'),
            flag: flagOf(a['@flag'] ?? a['@role']),
            text: textOfNode(a.text).replace(/\s+/g, ' ').trim(),
            location: String(a['@location'] ?? ''),
          });
        }
      } else if (!k.startsWith('@')) walk(v);
    }
  };
  walk(svrlParser.parse(svrl));
  return out;
}

function runSchematron(layer: keyof typeof SCHEMATRON, xml: string): Assertion[] {
  const result = saxon().transform({ stylesheetInternal: sefOf(layer), sourceText: xml, destination: 'serialized' }, 'sync');
  return parseSvrl(result.principalResult, layer);
}

// ---- the schemas (libxml2 compiled to WebAssembly) --------------------------------------------

type Libxml = typeof import('libxml2-wasm');
let libxmlMemo: Promise<{ lib: Libxml; validators: Map<string, import('libxml2-wasm').XsdValidator> }> | undefined;
async function libxml() {
  libxmlMemo ??= (async () => {
    const lib = await import('libxml2-wasm');
    const node = await import('libxml2-wasm/lib/nodejs.mjs');
    node.xmlRegisterFsInputProviders();
    return { lib, validators: new Map() };
  })();
  return libxmlMemo;
}

const XSD_MAIN: Record<string, { set: string; path: string }> = {
  Invoice: { set: SETS.ublXsd, path: 'xsd/maindoc/UBL-Invoice-2.1.xsd' },
  CreditNote: { set: SETS.ublXsd, path: 'xsd/maindoc/UBL-CreditNote-2.1.xsd' },
  CrossIndustryInvoice: { set: SETS.ciiXsd, path: 'cii/schema/D16B SCRDM (Subset)/uncoupled clm/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd' },
};

const rootName = (xml: string): string => {
  const m = /<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s>/]/.exec(xml.replace(/<\?[\s\S]*?\?>/g, '').replace(/<!--[\s\S]*?-->/g, ''));
  return m?.[1] ?? '';
};

async function runXsd(layer: 'ubl-xsd' | 'cii-xsd', xml: string): Promise<Assertion[]> {
  const root = rootName(xml);
  const main = XSD_MAIN[root];
  const expected = layer === 'ubl-xsd' ? ['Invoice', 'CreditNote'] : ['CrossIndustryInvoice'];
  if (!main || !expected.includes(root)) {
    return [{ layer, id: 'XSD', flag: 'fatal', text: `root element ${root || '(none)'} is not one of ${expected.join(', ')}`, location: '/' }];
  }
  const { lib, validators } = await libxml();
  let validator = validators.get(root);
  if (!validator) {
    const file = join(materialise(main.set), localPath(main.path));
    const xsdDoc = lib.XmlDocument.fromBuffer(readFileSync(file), { url: pathToFileURL(file).href });
    validator = lib.XsdValidator.fromDoc(xsdDoc);
    validators.set(root, validator);
  }
  let doc: import('libxml2-wasm').XmlDocument;
  try {
    doc = lib.XmlDocument.fromString(xml);
  } catch (e) {
    return [{ layer, id: 'XML', flag: 'fatal', text: (e as Error).message, location: '/' }];
  }
  try {
    validator.validate(doc);
    return [];
  } catch (e) {
    if (e instanceof lib.XmlValidateError) {
      return e.details.map((d) => ({ layer, id: 'XSD', flag: 'fatal' as const, text: d.message.trim(), location: `line ${d.line}` }));
    }
    throw e;
  } finally {
    doc.dispose();
  }
}

// ---- the API ------------------------------------------------------------------------------------

const customization = (xml: string) => /<(?:\w+:)?(?:CustomizationID|GuidelineSpecifiedDocumentContextParameter>\s*<(?:\w+:)?ID)>([^<]*)</.exec(xml)?.[1] ?? '';

export interface UblOptions {
  /** Peppol BIS Billing 3 rules; default: when CustomizationID names Peppol. */
  peppol?: boolean;
  /** KoSIT XRechnung rules; default: when CustomizationID names XRechnung. */
  xrechnung?: boolean;
}

function report(layers: Layer[], assertions: Assertion[]): ValidationReport {
  return { layers, assertions, fatal: assertions.filter((a) => a.flag === 'fatal') };
}

/** Runs the UBL 2.1 schema, EN 16931 (CEN), and Peppol / XRechnung as asked. */
export async function validateUbl(xml: string, options: UblOptions = {}): Promise<ValidationReport> {
  const id = customization(xml);
  const peppol = options.peppol ?? id.includes('peppol.eu');
  const xrechnung = options.xrechnung ?? id.includes('xrechnung');
  const layers: Layer[] = ['ubl-xsd', 'cen-ubl'];
  if (peppol) layers.push('peppol-ubl');
  if (xrechnung) layers.push('xrechnung-ubl');
  const assertions: Assertion[] = [];
  for (const layer of layers) {
    assertions.push(...(layer === 'ubl-xsd' ? await runXsd('ubl-xsd', xml) : runSchematron(layer as keyof typeof SCHEMATRON, xml)));
  }
  return report(layers, assertions);
}

/** Runs the CII D16B schema, EN 16931 (CEN) for CII, and XRechnung as asked. */
export async function validateCii(xml: string, options: { xrechnung?: boolean } = {}): Promise<ValidationReport> {
  const xrechnung = options.xrechnung ?? customization(xml).includes('xrechnung');
  const layers: Layer[] = ['cii-xsd', 'cen-cii'];
  if (xrechnung) layers.push('xrechnung-cii');
  const assertions: Assertion[] = [];
  for (const layer of layers) {
    assertions.push(...(layer === 'cii-xsd' ? await runXsd('cii-xsd', xml) : runSchematron(layer as keyof typeof SCHEMATRON, xml)));
  }
  return report(layers, assertions);
}

/** Compiles every layer now (what the first validation would otherwise do): for a global setup. */
export function prepareEinvoiceArtefacts(): void {
  for (const layer of Object.keys(SCHEMATRON) as (keyof typeof SCHEMATRON)[]) SCHEMATRON[layer].sefFile();
  materialise(SETS.ublXsd);
  materialise(SETS.ciiXsd);
}

export const describeAssertion = (a: Assertion) => `[${a.layer}] ${a.id} (${a.flag}) at ${a.location}: ${a.text}`;

let warned = false;
/** Fails (throws) on any fatal assertion; outside CI without the artefacts, warns once and passes. */
async function expectNoFatal(kind: string, run: () => Promise<ValidationReport>, xml: string): Promise<ValidationReport | undefined> {
  if (!artefactsAvailable()) {
    if (!warned) console.warn(`e-invoice artefacts missing: official validation skipped outside CI\n${howToGet()}`);
    warned = true;
    return undefined;
  }
  const r = await run();
  if (r.fatal.length > 0) {
    const err = new Error(`${kind} fails the official artefacts (${r.fatal.length} fatal):\n${r.fatal.map(describeAssertion).join('\n')}\n--- document ---\n${xml}`);
    (err as Error & { report: ValidationReport }).report = r;
    throw err;
  }
  return r;
}

export const expectValidUbl = (xml: string, options: UblOptions = {}) => expectNoFatal('UBL', () => validateUbl(xml, options), xml);
export const expectValidCii = (xml: string, options: { xrechnung?: boolean } = {}) => expectNoFatal('CII', () => validateCii(xml, options), xml);

// ---- the manifest -------------------------------------------------------------------------------

/**
 * `npx tsx test/support/einvoice-validate.ts --manifest` rewrites the manifest's checksums from the
 * artefacts at the commits it pins (after changing a commit there, on purpose). Files are listed in
 * the manifest by hand; this only fills their sha256.
 */
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes('--manifest')) {
  const m = manifest();
  for (const set of Object.values(m.sets)) {
    for (const f of set.files) {
      const data = execFileSync('git', ['--git-dir', gitDir(set.repo), 'show', `${set.commit}:${f.path}`], { maxBuffer: 64 << 20 });
      f.sha256 = sha256(data);
    }
  }
  writeFileSync(MANIFEST_PATH, `${JSON.stringify(m, null, 2)}\n`);
  console.log(`wrote ${MANIFEST_PATH}`);
}

// ---- every e-invoice a test gets -----------------------------------------------------------------

const UBL_TYPE = 'application/vnd.oasis.ubl+xml';

/**
 * The check every test applies to an e-invoice it receives (test/helpers.ts `call`, and the files
 * that fetch documents themselves): an XML body whose root is a UBL Invoice or CreditNote, or a CII
 * CrossIndustryInvoice, must pass the official artefacts with no fatal assertion; a UBL one must
 * also pass our own EN 16931 arithmetic checker, whose messages carry the numbers.
 */
export async function checkEinvoice(contentType: string | null, body: string): Promise<void> {
  const type = contentType ?? '';
  if (!type.startsWith(UBL_TYPE) && !/xml/.test(type)) return;
  const root = rootName(body);
  if (root === 'Invoice' || root === 'CreditNote') {
    const { assertEn16931 } = await import('./en16931.ts');
    assertEn16931(body);
    await expectValidUbl(body);
  } else if (root === 'CrossIndustryInvoice') {
    await expectValidCii(body);
  }
}

/** The n-th valid GLN of a test range (a GS1 check digit): for clients' electronic addresses `0088:<gln>`. */
export function testGln(n: number): string {
  const base = `4${String(n).padStart(11, '0')}`;
  const sum = [...base].reverse().reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return `${base}${(10 - (sum % 10)) % 10}`;
}
