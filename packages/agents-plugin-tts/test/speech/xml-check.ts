/**
 * A deliberately small XML well-formedness check for SSML fragments: balanced tags, quoted
 * attributes without raw '<' or '&', no raw '<' or '>' in text, and only known entities.
 * Returns the element names seen, or throws with the reason.
 */
const TAG = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<>]*")*)\s*(\/?)>/y;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9A-Fa-f]+);/y;
const ATTRIBUTE_VALUE = /="([^"]*)"/g;

function checkEntities(text: string, where: string): void {
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    ENTITY.lastIndex = i;
    if (!ENTITY.test(text)) throw new Error(`raw & in ${where} at ${i}: ${JSON.stringify(text.slice(i, i + 12))}`);
  }
}

export function assertWellFormed(xml: string): string[] {
  const stack: string[] = [];
  const elements: string[] = [];
  let roots = 0;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (text.includes('>')) throw new Error(`raw > in text: ${JSON.stringify(text)}`);
    checkEntities(text, 'text');
    if (text.trim() !== '' && stack.length === 0) throw new Error('text outside the root element');
    if (lt === -1) break;
    TAG.lastIndex = lt;
    const tag = TAG.exec(xml);
    if (tag === null) throw new Error(`malformed tag at ${lt}: ${JSON.stringify(xml.slice(lt, lt + 30))}`);
    const [whole, closing, name, attributes, selfClosing] = tag;
    for (const value of attributes.matchAll(ATTRIBUTE_VALUE)) checkEntities(value[1], 'attribute');
    if (closing === '/') {
      if (attributes !== '' || selfClosing === '/') throw new Error(`bad closing tag ${whole}`);
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}>`);
    } else {
      if (stack.length === 0) roots++;
      elements.push(name);
      if (selfClosing !== '/') stack.push(name);
    }
    i = lt + whole.length;
  }
  if (stack.length !== 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (roots !== 1) throw new Error(`expected one root element, found ${roots}`);
  return elements;
}

/** Text a listener-facing reader would see: tags removed, entities decoded. */
export function textContent(xml: string): string {
  return xml
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name] ?? '');
}
