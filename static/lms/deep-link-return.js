// Sends the picked activity back to the LMS at once (templates/lms/lti/deep_link_return.html);
// without script, the page's button does the same.
document.getElementById("lti-deep-link-return").submit();
