/**
 * Dirty marks, debounced passes per partition, and the bounded pool that runs them.
 */
@NullMarked
package dev.materializer.core.pass;

import org.jspecify.annotations.NullMarked;
