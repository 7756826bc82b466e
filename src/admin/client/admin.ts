// The script of every admin page: Alpine.js (its CSP build: no eval, so the strict CSP holds)
// with the shell's components and one component per page.
import Alpine from '@alpinejs/csp';
import { apiForm } from './form.ts';
import { copy, shell } from './shell.ts';
import { PAGE_COMPONENTS } from './pages/index.ts';

Alpine.data('shell', shell);
Alpine.data('copy', copy);
Alpine.data('apiForm', apiForm);
for (const [name, component] of Object.entries(PAGE_COMPONENTS)) Alpine.data(name, component);
Alpine.start();
