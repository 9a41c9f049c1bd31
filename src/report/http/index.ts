export {
  postWithRetries,
  type PostErrorCode,
  type PostOptions,
  type PostOutcome,
  type PostRetry,
} from './post-with-retries.js';
