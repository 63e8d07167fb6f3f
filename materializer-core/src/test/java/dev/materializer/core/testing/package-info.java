/**
 * Seeded property tests in plain JUnit 5: a property checks one case per seed, drawn by a generator
 * made from that seed, and names the seed when it fails, so any failure replays exactly.
 */
@NullMarked
package dev.materializer.core.testing;

import org.jspecify.annotations.NullMarked;
