import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  // the node-environment specs (scripts/) have no DOM to clean
  if (typeof document === 'undefined') return;
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
