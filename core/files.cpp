#include "core/files.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

#include "core/error.hpp"

namespace tryon {
namespace fs = std::filesystem;

bool has_extension(const fs::path& path, std::string_view extension) {
  std::string ext = path.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == extension;
}

void require_readable_file(const fs::path& path, const std::string& what) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw InputError(what + " file '" + path.string() + "' does not exist");
  if (fs::is_directory(status))
    throw InputError(what + " file '" + path.string() + "' is a directory, not a file");
  if (!fs::is_regular_file(status))
    throw InputError(what + " file '" + path.string() + "' is not a regular file");
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw InputError(what + " file '" + path.string() + "' cannot be read");
}

std::string read_text_file(const fs::path& path, const std::string& what, std::size_t max_bytes) {
  require_readable_file(path, what);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw InputError(what + " file '" + path.string() + "' is " + std::to_string(size >> 20) +
                     " MiB, more than the " + std::to_string(max_bytes >> 20) +
                     " MiB accepted");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file_atomic(const fs::path& path, const std::string& content) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path tmp =
      dir / ("." + path.filename().string() + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path.string() + "': cannot create a file in '" + dir.string() + "'");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      out.close();
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error("cannot write '" + path.string() + "' (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error("cannot write '" + path.string() + "': " + ec.message());
  }
}

}  // namespace tryon
