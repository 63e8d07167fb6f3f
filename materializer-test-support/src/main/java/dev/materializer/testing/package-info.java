/**
 * JUnit 5 fixtures that give a test a fresh MongoDB database and say what its server can do.
 *
 * <p>A test class is annotated {@link dev.materializer.testing.MongoTest} with the kind of server it
 * runs against and takes a {@link dev.materializer.testing.TestMongo} parameter. A contract suite
 * is an abstract class of scenarios with one subclass per kind of server. A test that needs what
 * not every server offers says so with {@link dev.materializer.testing.RequiresCapability}, and is
 * skipped, with the reason in the report, where the server lacks it. A
 * {@link dev.materializer.testing.TcpProxy} stands between a client under test and the server, to cut
 * its connections while the test's own client goes on.
 */
@NullMarked
package dev.materializer.testing;

import org.jspecify.annotations.NullMarked;
