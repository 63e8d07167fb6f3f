package dev.materializer.sample;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java block of the guides ({@code docs/*.md}, the READMEs) compiles as it is written, with the
 * sample's test class path (the starter, Spring Boot, Spring Data MongoDB, Spring MVC, the test
 * support): a user who pastes one gets no missing import. A block that is a fragment by design (a
 * method, a few statements) says so on its first line, {@code // Fragment: ...}, and is not compiled.
 * Each block is compiled alone, as one source file.
 */
class DocsJavaBlocksTests {

    private static final Pattern BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);

    private static final Pattern PUBLIC_TYPE = Pattern.compile("(?m)^public\\s+(?:final\\s+|abstract\\s+)?(?:class|record|interface|enum)\\s+(\\w+)");

    static final String FRAGMENT = "// Fragment:";

    @TempDir
    Path classes;

    @TestFactory
    Stream<DynamicTest> everyJavaBlockOfTheGuidesCompilesOrSaysItIsAFragment() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path guide : guides()) {
            String text = Files.readString(guide);
            Matcher block = BLOCK.matcher(text);
            while (block.find()) {
                String source = block.group(1);
                int line = text.substring(0, block.start()).split("\n", -1).length;
                String where = guide.getFileName() + ":" + line;
                if (source.strip().startsWith(FRAGMENT)) {
                    continue;
                }
                tests.add(DynamicTest.dynamicTest(where, () -> assertThat(compile(where, source)).as(where).isEmpty()));
            }
        }
        assertThat(tests).as("the guides have Java blocks that compile").hasSizeGreaterThan(3);
        return tests.stream();
    }

    private static List<Path> guides() throws IOException {
        List<Path> guides = new ArrayList<>();
        try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(guides::add);
        }
        guides.add(Path.of("..", "README.md"));
        guides.add(Path.of("README.md"));
        return guides;
    }

    /** The compiler's errors for one block, empty when it compiles. */
    private String compile(String where, String source) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Matcher type = PUBLIC_TYPE.matcher(source);
        String name = type.find() ? type.group(1) : "Snippet";
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        Path output = Files.createTempDirectory(this.classes, "block");
        StringWriter errors = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
            files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(output.toFile()));
            files.setLocation(StandardLocation.CLASS_PATH, classPath());
            boolean compiled = compiler.getTask(errors, files, null, List.of("-proc:none", "-Xlint:none", "-nowarn"),
                    null, List.of(file)).call();
            return compiled ? "" : where + ":\n" + errors;
        }
    }

    private static List<File> classPath() {
        List<File> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            path.add(new File(entry));
        }
        return path;
    }
}
