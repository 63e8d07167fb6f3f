/**
 * Auto-configuration of the Spring MVC support.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
