/**
 * Internal: the file. The Chronicle Map table, its creation and validation, the file's own record
 * ({@link dev.floodgate.store.FileHeader}) and the layout of entries. The only package that knows Chronicle Map
 * types. Public classes here are public for the engine's other packages only; nothing outside the engine
 * module may use them.
 */
package dev.floodgate.store;
