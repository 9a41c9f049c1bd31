export { readRunCommits } from '../../src/git/index.js';
export { refComponent as refComponentForTest } from '../../src/git/swarm-ref-names.js';
export { swarmRefNames } from '../../src/git/swarm-ref-names.js';
