package dev.materializer.core.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Rendezvous}: one owner per partition, stable when others leave, spread evenly. */
class RendezvousTest {

    @Test
    void theWeightIsTheFirstEightBytesOfSha256ReadUnsigned() {
        // Computed independently: sha256("a\0p")[0..8] and sha256("instance-1\0tenant-7")[0..8].
        assertThat(Rendezvous.weight("a", "p")).isEqualTo(1484272447879710118L);
        assertThat(Rendezvous.weight("instance-1", "tenant-7")).isEqualTo(428155385188902985L);
    }

    @Test
    void weightsAreComparedUnsigned() {
        // d's weight for tenant-7 is above 2^63: compared signed, b would win.
        assertThat(Long.toUnsignedString(Rendezvous.weight("d", "tenant-7"))).isEqualTo("10471329688261874347");
        assertThat(Rendezvous.owner("tenant-7", List.of("a", "b", "c", "d"))).isEqualTo("d");
    }

    @Test
    void theOwnerDoesNotDependOnTheOrderOfTheLiveSet() {
        assertThat(Rendezvous.owner("tenant-7", List.of("d", "c", "b", "a"))).isEqualTo("d");
    }

    @Test
    void aLoneInstanceOwnsEverything() {
        assertThat(Rendezvous.owner("any", Set.of("solo"))).isEqualTo("solo");
    }

    @Test
    void noLiveInstanceIsRefused() {
        assertThatThrownBy(() -> Rendezvous.owner("p", List.of()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("liveInstances must name at least one instance, was empty");
    }

    @Test
    void aThousandPartitionsSpreadRoughlyEvenlyOverFourInstances() {
        List<String> instances = List.of("node-1", "node-2", "node-3", "node-4");
        Map<String, Integer> counts = new HashMap<>();
        for (int p = 0; p < 1000; p++) {
            counts.merge(Rendezvous.owner("tenant-" + p, instances), 1, Integer::sum);
        }
        System.out.println("1000 partitions over 4 instances: " + new java.util.TreeMap<>(counts));
        assertThat(counts).containsOnlyKeys(instances);
        assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(150, 350));
    }

    @Test
    void exactlyOneLiveInstanceOwnsAPartition() {
        Seeds.check(200, gen -> {
            Set<String> live = instances(gen, 1);
            String p = partition(gen);

            String owner = Rendezvous.owner(p, live);

            assertThat(live).contains(owner);
            List<String> shuffled = gen.shuffle(new ArrayList<>(live));
            assertThat(Rendezvous.owner(p, shuffled)).as("owner of %s among %s", p, shuffled).isEqualTo(owner);
        });
    }

    @Test
    void removingAnInstanceThatDoesNotOwnAPartitionLeavesItsOwner() {
        Seeds.check(200, gen -> {
            Set<String> live = instances(gen, 1);
            String p = partition(gen);

            String owner = Rendezvous.owner(p, live);

            for (String other : live) {
                if (!other.equals(owner)) {
                    Set<String> fewer = new TreeSet<>(live);
                    fewer.remove(other);
                    assertThat(Rendezvous.owner(p, fewer)).as("owner of %s among %s", p, fewer).isEqualTo(owner);
                }
            }
        });
    }

    @Test
    void removingAnOwnerMovesOnlyItsPartitions() {
        Seeds.check(100, gen -> {
            // Two instances at least, so that one can leave and another take over.
            Set<String> live = instances(gen, 2);
            List<String> partitions = gen.listOf(1, 50, () -> partition(gen));
            String leaving = gen.oneOf(List.copyOf(live));
            Set<String> rest = new TreeSet<>(live);
            rest.remove(leaving);

            for (String p : partitions) {
                String before = Rendezvous.owner(p, live);
                String after = Rendezvous.owner(p, rest);
                if (!before.equals(leaving)) {
                    assertThat(after).as("partition %s stays with %s", p, before).isEqualTo(before);
                }
                else {
                    assertThat(rest).contains(after);
                }
            }
        });
    }

    /** From {@code minSize} to 8 instance ids of letters and digits. */
    private static Set<String> instances(Gen gen, int minSize) {
        int size = gen.between(minSize, 8);
        Set<String> instances = new LinkedHashSet<>();
        while (instances.size() < size) {
            instances.add(gen.string(1, 12, "abcdefghijklmnopqrstuvwxyz0123456789"));
        }
        return instances;
    }

    /** A partition name of any chars, empty included. */
    private static String partition(Gen gen) {
        return gen.text(0, 20);
    }
}
