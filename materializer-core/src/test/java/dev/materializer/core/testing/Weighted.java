package dev.materializer.core.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * Choices with weights, for generators whose choices depend on where they are (such as the depth of
 * a grammar): each is picked in proportion to its weight.
 * @param <T> the type of the choices
 */
public final class Weighted<T> {

    private final List<T> choices = new ArrayList<>();
    private final List<Integer> weights = new ArrayList<>();
    private int total;

    /**
     * Adds a choice.
     * @param weight how likely, against the others' weights; positive
     * @param choice the choice
     * @return this
     */
    public Weighted<T> or(int weight, T choice) {
        if (weight <= 0) {
            throw new IllegalArgumentException("weight must be positive, got " + weight);
        }
        choices.add(choice);
        weights.add(weight);
        total += weight;
        return this;
    }

    /**
     * Picks one choice.
     * @param gen the generator to draw from
     * @return the choice
     */
    public T pick(Gen gen) {
        int draw = gen.between(0, total - 1);
        for (int i = 0; i < choices.size(); i++) {
            draw -= weights.get(i);
            if (draw < 0) {
                return choices.get(i);
            }
        }
        throw new IllegalStateException("no choice to pick");
    }
}
