package dev.materializer.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class that runs against one kind of MongoDB server. Each test method may take a
 * {@link TestMongo} parameter: a database with a unique name, dropped after the test.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(MongoTestExtension.class)
public @interface MongoTest {

    /** The kind of server the tests of this class run against. */
    MongoKind value() default MongoKind.IN_PROCESS;
}
