// The release executable's entry (scripts/release.mjs bundles it): the command line, whatever
// the executable is called.
import { main } from './cli.ts';

void main(process.argv);
