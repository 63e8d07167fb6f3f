/**
 * Spring Boot support of the test fixtures: running an application of your own on the in-process
 * MongoDB test server during development.
 */
@NullMarked
package dev.materializer.testing.spring;

import org.jspecify.annotations.NullMarked;
