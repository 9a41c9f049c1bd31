/** The backtick fence, written out once so the prompts need no escaped backticks. */
export const FENCE = '```';

/** Every document is ingested after it is written, so every writing agent is told the one accepted block form. */
export const FILE_RULE =
  `Write every file as a fenced code block whose opening line is three backticks, the language, one space and ` +
  `file= followed by the file's path relative to the project, such as ${FENCE}python file=src/app.py, and put ` +
  `the whole file in it, one block per file. A path must not start with "/" or contain "..". When a file itself ` +
  `contains ${FENCE} fences (a README, say), open and close its block with four backticks instead of three.`;

/** Reviewers quote code but must not produce files: a file= block in a review would overwrite real work. */
export const NO_FILES_RULE =
  'Do not write files: quote code only in plain fenced blocks without file=, so nothing is created from your reply.';
