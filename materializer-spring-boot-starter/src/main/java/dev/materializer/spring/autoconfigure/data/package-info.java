/**
 * Auto-configuration of the Spring Data MongoDB support: view template beans and their installer,
 * and the typed reader of views.
 */
@NullMarked
package dev.materializer.spring.autoconfigure.data;

import org.jspecify.annotations.NullMarked;
