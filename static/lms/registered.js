// LTI dynamic registration's last step (templates/lms/lti/registered.html): tell the LMS,
// which opened this page in a window or a frame, that it may close it.
(window.opener || window.parent).postMessage({subject: "org.imsglobal.lti.close"}, "*");
