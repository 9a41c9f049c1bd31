import type { Construct, Effects, Token, Tokenizer } from 'micromark-util-types';

/**
 * Wraps a container construct (block quote, list) so that it no longer keeps a token open for the whole
 * container, which leaves the tokens, positions and block structure of everything inside unchanged.
 */
export function flattenContainer(construct: Construct): Construct {
  const continuation = construct.continuation;
  return {
    ...construct,
    tokenize: withoutContainerToken(construct.tokenize),
    ...(continuation === undefined
      ? {}
      : { continuation: { ...continuation, tokenize: withoutContainerToken(continuation.tokenize) } }),
    // The container token was never entered, so there is nothing to exit.
    exit: () => undefined,
  };
}

/**
 * micromark copies the stack of open tokens on every attempt, so a container token open per nesting level makes
 * each line cost depth squared; hostile `>>>>...` lines would make parsing quadratic.
 */
function withoutContainerToken(tokenize: Tokenizer): Tokenizer {
  return function tokenizeFlat(effects, ok, nok) {
    const now = (): Token['start'] => this.now();
    const flatEffects: Effects = {
      ...effects,
      enter(type, fields) {
        if (fields?._container !== true) return effects.enter(type, fields);
        const point = now();
        const token: Token = { ...fields, type, start: point, end: point };
        return token;
      },
    };
    return tokenize.call(this, flatEffects, ok, nok);
  };
}
