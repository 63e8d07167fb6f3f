/**
 * Spring MVC support: what an application's own controllers answer for the starter's exceptions.
 */
@NullMarked
package dev.materializer.spring.web;

import org.jspecify.annotations.NullMarked;
