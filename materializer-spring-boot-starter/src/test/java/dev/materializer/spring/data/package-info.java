@NullMarked
package dev.materializer.spring.data;

import org.jspecify.annotations.NullMarked;
