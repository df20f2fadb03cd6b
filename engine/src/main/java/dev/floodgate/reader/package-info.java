/**
 * Public API: {@link dev.floodgate.reader.FloodgateReader}, a read-only view of a table for operators' tools.
 * It maps the file read-only, takes no lock and cannot write; its records ({@link dev.floodgate.reader.TableEntry},
 * {@link dev.floodgate.reader.EntryState}, ...) are copies. Its package-private classes are internal.
 */
package dev.floodgate.reader;
