import { describe, expect, it } from 'vitest';
import { readArtifactAttribute } from '../../src/fence/index.js';

describe('readArtifactAttribute', () => {
  it.each([
    ['json artifact=development_result', 'development_result'],
    ['json\tartifact=issues', 'issues'],
    ['  json artifact=smoke_test_result  ', 'smoke_test_result'],
    ['json artifact=not_a_known_type', 'not_a_known_type'],
  ])('reads the contract type of %j', (info, type) => {
    expect(readArtifactAttribute(info)).toBe(type);
  });

  it.each([
    ['json file=a.json'],
    ['ts artifact=issues'],
    ['JSON artifact=issues'],
    ['json artifact='],
    ['json artifact=issues file=a.json'],
    ['json artifact="issues"'],
    ['json artifact=../issues'],
    ['json artifact=Issues'],
    ['json'],
    [''],
  ])('is undefined for %j', (info) => {
    expect(readArtifactAttribute(info)).toBeUndefined();
  });
});
