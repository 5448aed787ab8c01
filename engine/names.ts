// Naming conventions shared by every derivation.
export const snake = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
export const kebab = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
export const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
export const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
