package dev.materializer.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The capabilities a test needs from its server. Where the server of the test class lacks one, the
 * test is skipped and the reason names what is missing and on which server.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
public @interface RequiresCapability {

    /** The capabilities the test needs, all of them. */
    Capability[] value();
}
