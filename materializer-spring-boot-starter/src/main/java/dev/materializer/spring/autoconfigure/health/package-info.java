/**
 * Auto-configuration of the {@code materializer} health indicator, active only with Spring Boot's health
 * module.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
