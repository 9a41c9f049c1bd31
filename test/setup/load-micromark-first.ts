// Node 20 cannot require() an ES module while an import() of the same module graph is still in flight: it throws
// "Cannot require() ES Module ... because it is not yet fully loaded", or aborts the whole process with "FATAL
// ERROR: v8::Module::IsGraphAsync must be used on an instantiated module" (one loaded run of the suite lost a
// worker and its file so). The fence parser loads micromark with require() on first use (lazyModule, D76) while
// vitest loads packages with import(), so a test worker loads micromark here, before any test file, and every later
// require() finds it evaluated. In the CLI and the library every import() of micromark's graph (the report's
// renderer) has finished before anything parses, so they do not meet this race.
await import('micromark');
