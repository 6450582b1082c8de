package io.archiver;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The floors of docs/design.md's code map hold: every source file of a package imports, of this project's packages,
 * only its own, those the map's "imports" column lists for it ("everything below": every package of a later row;
 * "everything": all), and its own sub-packages. The table is read from the doc, so the two cannot drift.
 */
class CodeMapTest {

    private static final Pattern NAME = Pattern.compile("`([a-z][a-z.]*)`");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.archiver\\.([a-z.]+)\\.[A-Z]", Pattern.MULTILINE);

    @Test
    void everyPackageImportsOnlyWhatTheCodeMapAllows() throws IOException {
        Map<String, Set<String>> allowed = codeMap();
        List<String> violations = new ArrayList<>();
        for (String root : List.of("src/main/java", "src/local/java", "src/bench/java")) {
            Path base = Path.of(root, "io", "archiver");
            try (Stream<Path> files = Files.walk(base)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String pkg = base.relativize(file.getParent()).toString().replace('/', '.');
                    Set<String> may = allowed.get(pkg);
                    if (may == null) {
                        violations.add(file + ": package '" + pkg + "' is not in docs/design.md's code map");
                        continue;
                    }
                    Matcher m = IMPORT.matcher(Files.readString(file));
                    while (m.find()) {
                        String imported = packageOf(m.group(1), allowed.keySet());
                        if (!imported.equals(pkg) && !imported.startsWith(pkg + ".") && !may.contains(imported)) {
                            violations.add(file.getFileName() + " (" + pkg + ") imports " + imported);
                        }
                    }
                }
            }
        }
        assertThat(new TreeSet<>(violations)).as("imports the code map of docs/design.md does not allow").isEmpty();
    }

    /** Per package, the packages it may import, from the table under "## Code map". */
    private static Map<String, Set<String>> codeMap() throws IOException {
        String design = Files.readString(Path.of("docs", "design.md"));
        String table = design.substring(design.indexOf("## Code map"));
        List<List<String>> rows = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        for (String line : table.split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            rows.add(names(cells[1]));
            columns.add(cells[cells.length - 1].trim());
        }
        Map<String, Set<String>> allowed = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            Set<String> may = new LinkedHashSet<>();
            String imports = columns.get(i);
            if (imports.startsWith("everything below")) {
                rows.subList(i + 1, rows.size()).forEach(may::addAll);
            } else if (imports.startsWith("everything")) {
                rows.forEach(may::addAll);
                may.addAll(names(imports));
            } else {
                may.addAll(names(imports));
            }
            for (String pkg : rows.get(i)) {
                allowed.put(pkg, may);
            }
        }
        return allowed;
    }

    private static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(cell);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** The code-map package an imported class's package belongs to: the longest listed prefix. */
    private static String packageOf(String imported, Set<String> packages) {
        String best = imported;
        int length = -1;
        for (String p : packages) {
            if ((imported.equals(p) || imported.startsWith(p + ".")) && p.length() > length) {
                best = p;
                length = p.length();
            }
        }
        return best;
    }
}
