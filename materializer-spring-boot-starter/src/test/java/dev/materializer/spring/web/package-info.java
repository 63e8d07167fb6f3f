/**
 * Tests of what the starter shows over HTTP.
 */
@NullMarked
package dev.materializer.spring.web;

import org.jspecify.annotations.NullMarked;
