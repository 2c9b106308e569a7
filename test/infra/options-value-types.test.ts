/** Deployment options of the wrong type, as a program calling resolveOptions (not the CDK context) could pass them. */
import { describe, expect, it } from 'vitest';
import { optionsFromContext, resolveOptions } from '../../infra/config.js';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('attachableInstanceTag of another type than text', () => {
  it('is refused naming the option and the value, from the context and from a program alike', () => {
    for (const tag of [42, ['env', 'prod'], { env: 'prod' }]) {
      expect(() => resolveOptions({ attachableInstanceTag: tag as never }, 'Prod'), JSON.stringify(tag)).toThrow(
        new RegExp(`^attachableInstanceTag must be key=value, .*, got ${escaped(JSON.stringify(tag))}$`),
      );
      expect(() => optionsFromContext((key) => (key === 'attachableInstanceTag' ? tag : undefined)), JSON.stringify(tag)).toThrow(
        `attachableInstanceTag must be a string, got ${JSON.stringify(tag)}`,
      );
    }
  });
});
