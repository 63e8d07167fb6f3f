/**
 * Canonical, type-aware hashing of result rows, keys of row ids, and the stored ids of target rows.
 */
@NullMarked
package dev.materializer.core.hash;

import org.jspecify.annotations.NullMarked;
