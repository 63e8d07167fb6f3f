/**
 * What a user reads when the application does not start because of the starter, and the warnings
 * at startup for keys under {@code materializer.*} that nothing reads.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
