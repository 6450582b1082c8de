package io.archiver.testutils;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every log line (message and stack trace) written in this JVM while open, at every level the test logging
 * configuration lets through: for tests that check what never reaches a log.
 */
public final class CapturedLogs implements AutoCloseable {

    private static final AtomicInteger IDS = new AtomicInteger();

    private final List<String> lines = new ArrayList<>();
    private final AbstractAppender appender;

    private CapturedLogs() {
        appender = new AbstractAppender("captured-" + IDS.incrementAndGet(), null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                StringBuilder line = new StringBuilder(event.getMessage().getFormattedMessage());
                if (event.getThrown() != null) {
                    StringWriter trace = new StringWriter();
                    event.getThrown().printStackTrace(new PrintWriter(trace));
                    line.append('\n').append(trace);
                }
                synchronized (lines) {
                    lines.add(line.toString());
                }
            }
        };
    }

    public static CapturedLogs start() {
        CapturedLogs logs = new CapturedLogs();
        logs.appender.start();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        config.getRootLogger().addAppender(logs.appender, Level.ALL, null);
        context.updateLoggers();
        return logs;
    }

    /** The lines captured so far that contain {@code text}. */
    public List<String> containing(String text) {
        List<String> found = new ArrayList<>();
        synchronized (lines) {
            for (String line : lines) {
                if (line.contains(text)) {
                    found.add(line);
                }
            }
        }
        return found;
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getRootLogger().removeAppender(appender.getName());
        context.updateLoggers();
        appender.stop();
    }
}
