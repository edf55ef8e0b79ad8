"""A skill for the agent page's browser test: it asks one question, then completes.

Installed in the test project only when ``A2A_TEST_APPS`` names it (the uvicorn process
of tests/integration/test_agent_page_browser.py), so no other test sees it.
"""
