# Install rules and the Debian package (CPack's DEB generator): `cmake
# --build build --target package` writes build/leakhound_VERSION_ARCH.deb.
# CPack rather than a debian/ directory: the package is built from the same
# install rules as `cmake --install`, by the build the tests ran on, with
# no second build system to keep in step; dpkg-shlibdeps still computes the
# library dependencies. Files: cli/dist/ (units, man pages, completion,
# configuration, maintainer scripts).
include(GNUInstallDirs)
set(_dist ${PROJECT_SOURCE_DIR}/cli/dist)

install(TARGETS leakhound RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The web channel's c-icap module, where Debian's c-icap looks for
# services (its ServicesDir: c_icap beside libicapapi), absolute as /etc.
get_filename_component(_icap_libdir ${CICAP_LIBRARY} DIRECTORY)
install(TARGETS srv_leakhound LIBRARY DESTINATION ${_icap_libdir}/c_icap)

# Man pages and the changelog, gzipped as Debian wants them (-n: no name or
# time stamp, so the bytes do not depend on the build).
set(_gzipped)
foreach(_file leakhound.1 leakhound.conf.5 changelog)
  set(_out ${PROJECT_BINARY_DIR}/dist/${_file}.gz)
  add_custom_command(OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/dist
    COMMAND gzip -9n -c ${_dist}/${_file} > ${_out}
    DEPENDS ${_dist}/${_file} VERBATIM)
  list(APPEND _gzipped ${_out})
endforeach()
add_custom_target(leakhound_dist_files ALL DEPENDS ${_gzipped})
install(FILES ${PROJECT_BINARY_DIR}/dist/leakhound.1.gz
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_BINARY_DIR}/dist/leakhound.conf.5.gz
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES ${_dist}/leakhound.bash-completion
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME leakhound)
install(FILES ${_dist}/copyright ${PROJECT_BINARY_DIR}/dist/changelog.gz
  ${PROJECT_SOURCE_DIR}/docs/web-gateway.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/leakhound)
install(FILES ${_dist}/leakhound-milter.service ${_dist}/leakhound-console.service
  ${_dist}/leakhound-icap.service
  ${_dist}/leakhound-sync.service ${_dist}/leakhound-sync.timer
  ${_dist}/leakhound-desk.service ${_dist}/leakhound-desk.timer
  ${_dist}/leakhound-discover.service ${_dist}/leakhound-discover.timer
  DESTINATION /lib/systemd/system)
# /etc: absolute, so `cmake --install` and the package put it at /etc.
install(FILES ${_dist}/milter.conf ${_dist}/sync.env ${_dist}/policy.toml
  ${_dist}/c-icap.conf
  DESTINATION /etc/leakhound PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
# The desk's URI may name a password file: not for every user's eyes.
install(FILES ${_dist}/desk.env
  DESTINATION /etc/leakhound PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME leakhound)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "The leakhound authors <leakhound@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "data-leak prevention for mail, web uploads and files")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "leakhound fingerprints protected documents into an index that holds no
protected text and reports which of them an outbound file or mail quotes,
with the passages, even with a few words changed. It ships a milter for
Postfix and Sendmail, an ICAP service for Squid (a c-icap module) that
judges uploads, forms and pastes, an incident store with a web console,
and a sync service that keeps the protected set equal to folders.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION mail)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, tesseract-ocr-eng, tesseract-ocr-chi-sim")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "c-icap")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postfix, squid-openssl")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${_dist}/postinst ${_dist}/postrm ${_dist}/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
