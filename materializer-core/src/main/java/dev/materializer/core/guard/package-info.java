/**
 * The scope guard: rewrites a view's pipeline so it reads only its partition and only current generations, and never writes.
 */
@NullMarked
package dev.materializer.core.guard;

import org.jspecify.annotations.NullMarked;
