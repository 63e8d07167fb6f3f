package dev.materializer.core.architecture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The size rules of the core's main code, as {@code docs/architecture.md} states them: no method (or
 * constructor) is longer than 60 lines, and a class file longer than 500 lines is one the document's
 * table of classes over 500 lines names, with the reason and the seam of its split. A method's lines
 * run from the first line of its declaration (annotations included) to its closing brace.
 *
 * <p>The sources are read as text: comments and literals are blanked, then braces are matched; a
 * brace that opens after a {@code )} (and a {@code throws} clause) directly in a class body opens a
 * method's body. Lambdas, anonymous classes and blocks inside a method count towards the method.
 * {@code theScannerFindsMethodsAndTheirLengthsAsWritten} pins what it counts.
 */
class SizeRulesTest {

    private static final Path SOURCES = Path.of("src/main/java");

    private static final Path ARCHITECTURE = Path.of("../docs/architecture.md");

    private static final int LONGEST_METHOD = 60;

    private static final int LONGEST_CLASS = 500;

    private static final Pattern TYPE = Pattern.compile("\\b(class|interface|enum|record)\\b");

    private static final Pattern ANNOTATION = Pattern.compile("@[\\w.]+(\\s*\\([^)]*\\))?");

    private static final Pattern LISTED = Pattern.compile("^\\| `([\\w.]+)` \\| \\d+ \\|", Pattern.MULTILINE);

    @Test
    void noMethodOfTheCoreIsLongerThanSixtyLines() throws IOException {
        List<String> tooLong = new ArrayList<>();
        int found = 0;
        int longest = 0;
        for (Path file : sources()) {
            for (Method method : methods(blanked(Files.readString(file)))) {
                found++;
                longest = Math.max(longest, method.lines());
                if (method.lines() > LONGEST_METHOD) {
                    tooLong.add(SOURCES.relativize(file) + ":" + method.firstLine() + " (" + method.lines() + " lines)");
                }
            }
        }
        assertThat(tooLong).as("methods over %d lines", LONGEST_METHOD).isEmpty();
        // The scan sees the code: some 1,300 methods today, the longest close to the bound
        assertThat(found).as("methods found").isGreaterThan(1_000);
        assertThat(longest).as("the longest method's lines").isGreaterThan(LONGEST_METHOD / 2);
    }

    @Test
    void everyClassOverFiveHundredLinesIsInTheArchitectureTableAndNoOtherIs() throws IOException {
        Set<String> over = new TreeSet<>();
        for (Path file : sources()) {
            if (Files.readAllLines(file).size() > LONGEST_CLASS) {
                over.add(tableName(file));
            }
        }
        Set<String> listed = new TreeSet<>();
        Matcher row = LISTED.matcher(Files.readString(ARCHITECTURE));
        while (row.find()) {
            listed.add(row.group(1));
        }
        assertThat(listed).as("the table of classes over %d lines in %s", LONGEST_CLASS, ARCHITECTURE)
            .isEqualTo(over);
    }

    @Test
    void theScannerFindsMethodsAndTheirLengthsAsWritten() {
        String source = """
                package p;

                /** A class. */
                final class A {

                    // Not a method: a field initialised by a lambda with a body
                    private final Runnable r = () -> {
                        System.out.println("}");
                    };

                    @Override
                    public String toString() {
                        if (r != null) {
                            return "{";
                        }
                        return new Object() {
                            int size() {
                                return 1;
                            }
                        }.toString();
                    }

                    static final class B {
                        B(int x) throws Exception {
                        }
                    }
                }
                """;

        assertThat(methods(blanked(source))).extracting(Method::firstLine, Method::lines)
            .as("the anonymous class's method counts towards the method it is in")
            .containsExactlyInAnyOrder(tuple(11, 11), tuple(24, 2));
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                .filter(file -> !file.getFileName().toString().equals("module-info.java"))
                .filter(file -> !file.getFileName().toString().equals("package-info.java"))
                .sorted().toList();
        }
    }

    /** {@code dev/materializer/core/engine/SourceFeed.java} as the table names it: {@code engine.SourceFeed}. */
    private static String tableName(Path file) {
        String name = SOURCES.relativize(file).toString().replace('/', '.').replace(".java", "");
        return name.substring("dev.materializer.core.".length());
    }

    /** The source with comments, strings, text blocks and characters blanked, lines kept. */
    static String blanked(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            if (source.startsWith("//", i)) {
                i = blank(source, out, i, source.indexOf('\n', i) < 0 ? source.length() : source.indexOf('\n', i));
            }
            else if (source.startsWith("/*", i)) {
                i = blank(source, out, i, source.indexOf("*/", i + 2) + 2);
            }
            else if (source.startsWith("\"\"\"", i)) {
                i = blank(source, out, i, source.indexOf("\"\"\"", i + 3) + 3);
            }
            else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                i = blank(source, out, i, endOfLiteral(source, i));
            }
            else {
                out.append(source.charAt(i++));
            }
        }
        return out.toString();
    }

    private static int endOfLiteral(String source, int start) {
        char quote = source.charAt(start);
        int i = start + 1;
        while (source.charAt(i) != quote) {
            i += source.charAt(i) == '\\' ? 2 : 1;
        }
        return i + 1;
    }

    private static int blank(String source, StringBuilder out, int from, int to) {
        for (int i = from; i < to; i++) {
            out.append(source.charAt(i) == '\n' ? '\n' : ' ');
        }
        return to;
    }

    /** The methods and constructors of blanked source, with the line each starts on and its length. */
    static List<Method> methods(String code) {
        List<Method> methods = new ArrayList<>();
        Deque<Block> open = new ArrayDeque<>();
        int headerStart = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '{') {
                String header = code.substring(headerStart, i);
                boolean inClass = open.isEmpty() || open.peek().kind() == Kind.CLASS;
                Kind kind = isTypeHeader(header) ? Kind.CLASS
                        : inClass && isMethodHeader(header) ? Kind.METHOD : Kind.OTHER;
                int firstLine = lineOf(code, headerStart + leadingBlanks(header));
                open.push(new Block(kind, firstLine));
                headerStart = i + 1;
            }
            else if (c == '}') {
                Block block = open.pop();
                if (block.kind() == Kind.METHOD) {
                    methods.add(new Method(block.firstLine(), lineOf(code, i) - block.firstLine() + 1));
                }
                headerStart = i + 1;
            }
            else if (c == ';') {
                headerStart = i + 1;
            }
        }
        return methods;
    }

    /** A type's declaration: its keyword comes before any parenthesis once annotations are left out. */
    private static boolean isTypeHeader(String header) {
        String bare = ANNOTATION.matcher(header).replaceAll(" ");
        Matcher keyword = TYPE.matcher(bare);
        int paren = bare.indexOf('(');
        return keyword.find() && (paren < 0 || keyword.start() < paren) && !bare.contains("->")
                && !bare.matches("(?s).*\\bnew\\b.*");
    }

    /** A declaration's parameters close just before its body, maybe with a throws clause between. */
    private static boolean isMethodHeader(String header) {
        String trimmed = ANNOTATION.matcher(header).replaceAll(" ").strip();
        if (trimmed.contains("=") || trimmed.endsWith("->") || trimmed.startsWith("new ") || trimmed.contains(" new ")) {
            return false;
        }
        String beforeThrows = trimmed.replaceFirst("\\)\\s*throws\\s+[\\w.,\\s<>]+$", ")");
        return beforeThrows.endsWith(")") && !beforeThrows.matches("(?s)^(if|for|while|switch|catch|synchronized|try)\\b.*");
    }

    private static int leadingBlanks(String header) {
        int n = 0;
        while (n < header.length() && Character.isWhitespace(header.charAt(n))) {
            n++;
        }
        return n;
    }

    private static int lineOf(String code, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (code.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private enum Kind { CLASS, METHOD, OTHER }

    private record Block(Kind kind, int firstLine) {
    }

    /** A method found: the line its declaration starts on, and how many lines it spans. */
    record Method(int firstLine, int lines) {
    }
}
