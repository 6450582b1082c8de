package io.archiver;

import io.archiver.cli.ArchiverCli;
import io.archiver.config.ArchiverConfig;
import io.archiver.config.ArchiverOptions;
import io.archiver.local.LocalCommand;

import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What README.md and docs/ show exists: every relative link and anchor resolves, every configuration key they name
 * (in prose, in a table, in a YAML example) is one the configuration accepts, and every command and flag they show
 * is one the command line has (an option of the command it is shown with).
 */
class DocumentationTest {

    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern CODE_KEY = Pattern.compile("`([a-z][a-z0-9-]*(?:\\.[a-z0-9-]+)+)(\\.\\*)?[:=`]");
    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(--[a-z][a-zA-Z0-9-]*)");
    private static final Pattern COMMAND_USE = Pattern.compile("(?:\\barchiver\\s+|^\\|\\s*`)(run|audit|repair|cleanup|restore|options)\\b(.*)");
    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern FENCED = Pattern.compile("```.*?```", Pattern.DOTALL);

    /** Flags of other programs the docs show, each with the program it belongs to. */
    private static final Map<String, String> OTHER_PROGRAMS_FLAGS = Map.of(
            "--savepointPath", "flink stop",
            "--add-opens", "java",
            "--from-literal", "kubectl create secret",
            "--help", "every command (picocli's standard option)");

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path doc : docs()) {
            Matcher m = LINK.matcher(withoutFencedBlocks(Files.readString(doc)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z][a-z+.-]*:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? doc : doc.toAbsolutePath().getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(doc + ": " + target + " (no such file)");
                } else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocumentationTest::anchorsOf).contains(target.substring(hash + 1))) {
                    broken.add(doc + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("links of README.md and docs/ that lead nowhere").isEmpty();
    }

    @Test
    void everyConfigurationKeyTheDocsNameIsOneTheConfigurationAccepts() throws IOException {
        Set<String> areas = ArchiverOptions.all().stream().map(o -> o.key().split("\\.")[0]).collect(Collectors.toSet());
        Set<String> packages = packages();
        List<String> unknown = new ArrayList<>();
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            Matcher m = CODE_KEY.matcher(text);
            while (m.find()) {
                String key = m.group(1);
                boolean wildcard = m.group(2) != null;
                if (areas.contains(key.split("\\.")[0]) && !packages.contains(key) && !isKey(key, wildcard)) {
                    unknown.add(doc + ": " + key + (wildcard ? ".*" : ""));
                }
            }
            Matcher yaml = YAML_BLOCK.matcher(text);
            while (yaml.find()) {
                Map<String, String> flat = flatten(yaml.group(1));
                if (flat.keySet().stream().anyMatch(k -> areas.contains(k.split("\\.")[0]))) {
                    flat.keySet().stream().filter(k -> !ArchiverConfig.isKnownKey(k)).forEach(k -> unknown.add(doc + " (YAML): " + k));
                }
            }
        }
        assertThat(new TreeSet<>(unknown)).as("configuration keys the docs name that the configuration refuses").isEmpty();
    }

    @Test
    void everyCommandAndFlagTheDocsShowIsOneTheCommandLineHas() throws IOException {
        CommandLine cli = ArchiverCli.commandLine();
        Set<String> everyFlag = new HashSet<>(OTHER_PROGRAMS_FLAGS.keySet());
        cli.getSubcommands().values().forEach(c -> everyFlag.addAll(flagsOf(c)));
        everyFlag.addAll(flagsOf(new CommandLine(new LocalCommand())));
        List<String> wrong = new ArrayList<>();
        for (Path doc : docs()) {
            for (String line : Files.readAllLines(doc)) {
                Matcher flags = FLAG.matcher(line);
                while (flags.find()) {
                    if (!everyFlag.contains(flags.group(1))) {
                        wrong.add(doc + ": " + flags.group(1) + " is no option of any command");
                    }
                }
                Matcher use = COMMAND_USE.matcher(line);
                if (use.find()) {
                    Set<String> own = flagsOf(cli.getSubcommands().get(use.group(1)));
                    Matcher shown = FLAG.matcher(use.group(2).split("\\|")[0]);
                    while (shown.find()) {
                        if (!own.contains(shown.group(1)) && !OTHER_PROGRAMS_FLAGS.containsKey(shown.group(1))) {
                            wrong.add(doc + ": " + use.group(1) + " has no option " + shown.group(1));
                        }
                    }
                }
            }
        }
        assertThat(new TreeSet<>(wrong)).as("flags the docs show that the command line does not have").isEmpty();
    }

    @Test
    void theAnchorsOfAHeadingAreGitHubs() {
        assertThat(slug("Audit, repair and cleanup")).isEqualTo("audit-repair-and-cleanup");
        assertThat(slug("Typed columns from a Schema Registry (2026-12-03)")).isEqualTo("typed-columns-from-a-schema-registry-2026-12-03");
        assertThat(slug("`kafka.start` and `resume.from-archive`")).isEqualTo("kafkastart-and-resumefrom-archive");
        assertThat(slug("A [link](x.md) in a heading")).isEqualTo("a-link-in-a-heading");
    }

    private static boolean isKey(String key, boolean wildcard) {
        if (ArchiverConfig.isKnownKey(key)) {
            return true;
        }
        // a namespace of options (`sink.parquet.*`, or `sink.parquet` naming them all)
        return ArchiverOptions.all().stream().map(ConfigOption::key).anyMatch(k -> k.startsWith(key + "."))
                || (wildcard && ArchiverConfig.isKnownKey(key + ".x"));
    }

    private static Set<String> flagsOf(CommandLine command) {
        Set<String> flags = new HashSet<>();
        for (OptionSpec option : command.getCommandSpec().options()) {
            flags.addAll(List.of(option.names()));
        }
        return flags;
    }

    /** README.md, CHANGELOG.md and every page of docs/. */
    private static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CHANGELOG.md")));
        try (Stream<Path> pages = Files.list(Path.of("docs"))) {
            pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** The packages of the code, dotted under {@code io.archiver} ({@code sink.files}): docs name them like keys. */
    private static Set<String> packages() throws IOException {
        Path base = Path.of("src", "main", "java", "io", "archiver");
        try (Stream<Path> dirs = Files.walk(base)) {
            return dirs.filter(Files::isDirectory).map(d -> base.relativize(d).toString().replace('/', '.')).collect(Collectors.toSet());
        }
    }

    private static Set<String> anchorsOf(Path doc) {
        try {
            Set<String> anchors = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            String text = withoutFencedBlocks(Files.readString(doc));
            for (String line : text.split("\n")) {
                Matcher h = HEADING.matcher(line);
                if (h.matches()) {
                    String slug = slug(h.group(1));
                    int n = seen.merge(slug, 1, Integer::sum);
                    anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
                }
            }
            Matcher a = HTML_ANCHOR.matcher(text);
            while (a.find()) {
                anchors.add(a.group(1));
            }
            return anchors;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** GitHub's anchor of a heading: link text kept, lower case, anything but letters, digits, spaces, - and _ dropped, spaces as -. */
    private static String slug(String heading) {
        return heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }

    private static String withoutFencedBlocks(String text) {
        return FENCED.matcher(text).replaceAll("");
    }

    private static Map<String, String> flatten(String yaml) {
        Map<String, String> out = new HashMap<>();
        Object doc = new Load(LoadSettings.builder().build()).loadFromString(yaml);
        if (doc instanceof Map<?, ?> map) {
            flatten("", map, out);
        }
        return out;
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
        map.forEach((k, v) -> {
            if (v instanceof Map<?, ?> inner) {
                flatten(prefix + k + ".", inner, out);
            } else {
                out.put(prefix + k, v instanceof Collection<?> c ? String.valueOf(c) : String.valueOf(v));
            }
        });
    }
}
