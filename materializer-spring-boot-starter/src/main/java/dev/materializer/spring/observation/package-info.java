/**
 * Micrometer Observations of the materializer: one per pass of one view.
 */
@NullMarked
package dev.materializer.spring.observation;

import org.jspecify.annotations.NullMarked;
