/**
 * Test helpers of the starter.
 */
@NullMarked
package dev.materializer.spring.testing;

import org.jspecify.annotations.NullMarked;
