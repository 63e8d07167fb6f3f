/**
 * The embedded default of the sample: an in-process MongoDB test server when no
 * {@code spring.mongodb.uri} is configured, so the app runs with nothing installed.
 */
@NullMarked
package dev.materializer.sample.embedded;

import org.jspecify.annotations.NullMarked;
