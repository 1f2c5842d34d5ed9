#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace tryon {

/// Throws InputError unless `path` names a readable regular file (not a directory, not
/// missing). `what` says what the file was meant to be ("pattern", "body").
void require_readable_file(const std::filesystem::path& path, const std::string& what);

/// Whether `path` ends in `extension` ("." and lower case, e.g. ".obj"), in any case.
bool has_extension(const std::filesystem::path& path, std::string_view extension);

/// Reads a whole file into a string; refuses files over `max_bytes` with InputError.
std::string read_text_file(const std::filesystem::path& path, const std::string& what,
                           std::size_t max_bytes = std::size_t{256} << 20);

/// Writes `content` to `path` whole or not at all: it goes to a temporary file in the same
/// folder first and is renamed over `path` once complete. Throws std::runtime_error on failure.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

}  // namespace tryon
