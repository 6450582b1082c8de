package io.archiver.config;

import java.util.Collection;
import java.util.Optional;

/** The name closest to a mistyped one, for "did you mean" hints in error messages. */
public final class CloseNames {

    private CloseNames() {}

    /**
     * The candidate with the fewest single-character edits from {@code name}, if it is close enough to be the
     * likely intent: at most 3 edits, or a quarter of the name's length for long names.
     */
    public static Optional<String> closest(String name, Collection<String> candidates) {
        String nearest = null;
        int best = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = editDistance(name, candidate);
            if (d < best) {
                best = d;
                nearest = candidate;
            }
        }
        return nearest != null && best <= Math.max(3, name.length() / 4) ? Optional.of(nearest) : Optional.empty();
    }

    private static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
