package io.pg2lite.source.config;

/**
 * A problem a live check of {@code validate()} found, on the field an operator must change
 * ({@code field} is one of {@link SourceConfig}'s {@code *_CONFIG} keys).
 */
public record ConfigProblem(String field, String message) {}
