/** An If-Match list as RFC 9110 writes it: optional whitespace is spaces or tabs, and the weak prefix is `W/` in capitals. */
import { describe, expect, it } from 'vitest';
import { parseIfMatch } from '../../lib/api/preconditions.js';

describe('If-Match list grammar', () => {
  it('takes tabs as well as spaces around the commas of a list (OWS, RFC 9110 §5.6.3)', () => {
    for (const header of ['"1",\t"2"', '"1"\t,"2"', '"1" ,\t "2"']) {
      expect(parseIfMatch(header), JSON.stringify(header)).toEqual({ header, any: false, tags: ['"1"', '"2"'] });
    }
  });

  it('reads a lower-case `w/` prefix as no entity tag at all, not as a weak one (weak = %s"W/", case-sensitive)', () => {
    for (const header of ['w/"1"', '"1", w/"2"']) {
      expect(parseIfMatch(header), JSON.stringify(header)).toEqual({ header, any: false, tags: [], fault: 'malformed' });
    }
    expect(parseIfMatch('W/"1"')).toEqual({ header: 'W/"1"', any: false, tags: [], fault: 'weak' });
  });
});
