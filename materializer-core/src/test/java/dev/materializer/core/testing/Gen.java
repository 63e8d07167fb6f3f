package dev.materializer.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The cases of one seed: every draw comes from one {@link SplittableRandom} made from the seed, so
 * the same seed gives the same cases. Bounds are inclusive.
 */
public final class Gen {

    /** How often {@link #until} draws before it gives up: a filter that rarely passes is a broken generator. */
    private static final int MAX_DRAWS = 1000;

    private final long seed;
    private final SplittableRandom random;

    /**
     * A generator for one seed.
     * @param seed the seed
     */
    public Gen(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /**
     * The seed of this generator, for a failure to name how to replay its case.
     * @return the seed
     */
    public long seed() {
        return seed;
    }

    /**
     * An int from {@code min} to {@code max}.
     * @param min the smallest
     * @param max the largest, below {@link Integer#MAX_VALUE}
     * @return the int
     */
    public int between(int min, int max) {
        return random.nextInt(min, Math.addExact(max, 1));
    }

    /**
     * A long from {@code min} to {@code max}.
     * @param min the smallest
     * @param max the largest, below {@link Long#MAX_VALUE}
     * @return the long
     */
    public long between(long min, long max) {
        return random.nextLong(min, Math.addExact(max, 1));
    }

    /**
     * Any int.
     * @return the int
     */
    public int anyInt() {
        return random.nextInt();
    }

    /**
     * Any long.
     * @return the long
     */
    public long anyLong() {
        return random.nextLong();
    }

    /**
     * Any double: random bits (NaNs, infinities and subnormals among them), a short decimal, or one
     * of the values arithmetic gets wrong most often.
     * @return the double
     */
    public double anyDouble() {
        return switch (between(0, 2)) {
            case 0 -> Double.longBitsToDouble(random.nextLong());
            case 1 -> between(-100_000, 100_000) / 100.0;
            default -> oneOf(0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE);
        };
    }

    /**
     * True or false, as often.
     * @return the boolean
     */
    public boolean anyBoolean() {
        return random.nextBoolean();
    }

    /**
     * True once in {@code n} draws on average.
     * @param n how rare, at least 1
     * @return the boolean
     */
    public boolean oneIn(int n) {
        return random.nextInt(n) == 0;
    }

    /**
     * Random bytes.
     * @param size how many
     * @return the bytes
     */
    public byte[] bytes(int size) {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return bytes;
    }

    /**
     * One of the choices, each as likely.
     * @param <T> the type of the choices
     * @param choices the choices, at least one
     * @return the one picked
     */
    @SafeVarargs
    public final <T> T oneOf(T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    /**
     * One of the choices, each as likely.
     * @param <T> the type of the choices
     * @param choices the choices, at least one
     * @return the one picked
     */
    public <T> T oneOf(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /**
     * A list of drawn elements.
     * @param <T> the type of the elements
     * @param minSize the fewest elements
     * @param maxSize the most elements
     * @param element draws one element
     * @return a new, mutable list
     */
    public <T> List<T> listOf(int minSize, int maxSize, Supplier<T> element) {
        int size = between(minSize, maxSize);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.get());
        }
        return list;
    }

    /**
     * A string of chars from an alphabet.
     * @param minLength the shortest
     * @param maxLength the longest
     * @param alphabet the chars to draw from
     * @return the string
     */
    public String string(int minLength, int maxLength, String alphabet) {
        int length = between(minLength, maxLength);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /**
     * A string of any chars: ASCII, two- and three-byte UTF-8 chars, lone surrogates and surrogate
     * pairs, where encodings go wrong.
     * @param minLength the fewest chars
     * @param maxLength the most chars
     * @return the string
     */
    public String text(int minLength, int maxLength) {
        int length = between(minLength, maxLength);
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            switch (between(0, 3)) {
                case 0 -> text.append((char) between(0, 0x7f));
                case 1 -> text.append((char) between(0x80, 0x7ff));
                case 2 -> text.append((char) between(0x800, 0xffff));
                default -> {
                    if (text.length() + 2 <= length) {
                        text.appendCodePoint(between(0x10000, Character.MAX_CODE_POINT));
                    }
                }
            }
        }
        return text.toString();
    }

    /**
     * Shuffles a list in place (Fisher-Yates), drawing from this generator.
     * @param <T> the type of the elements
     * @param list the list to shuffle
     * @return the same list
     */
    public <T> List<T> shuffle(List<T> list) {
        for (int i = list.size() - 1; i > 0; i--) {
            int other = random.nextInt(i + 1);
            list.set(i, list.set(other, list.get(i)));
        }
        return list;
    }

    /**
     * Draws until a draw is accepted: a filter without shrinking, in place of an assumption that would
     * skip the case.
     * @param <T> the type of the draws
     * @param draw draws one candidate
     * @param accepted whether a candidate will do
     * @return the first candidate accepted
     * @throws IllegalStateException when {@value #MAX_DRAWS} draws in a row are refused
     */
    public <T> T until(Supplier<T> draw, Predicate<? super T> accepted) {
        for (int i = 0; i < MAX_DRAWS; i++) {
            T candidate = draw.get();
            if (accepted.test(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException(
            "no draw accepted in " + MAX_DRAWS + " tries: the generator rarely gives such cases");
    }

    @Override
    public String toString() {
        return "seed=" + seed;
    }
}
